# DiscoPoP's candidate verification (loop.py's _verify_by_building with patchset.py's
# write_patch_set and restore_patch_dir, tuda-hpclab/discopop at 53a01f2, 3-Clause BSD), reduced to
# what a kill interrupts: the candidate is written into patch_generator/<id>/, the build runs, and
# only a `finally` puts the snapshot back. SIGTERM, SIGHUP and SIGKILL end Python without running
# it; SIGINT raises KeyboardInterrupt, so the folder is put back.
import os
import subprocess
import sys

folder, candidate_dir = sys.argv[1], sys.argv[2]
snapshot = {}
for name in sorted(os.listdir(folder)):
    path = os.path.join(folder, name)
    if os.path.isfile(path):
        with open(path, "rb") as f:
            snapshot[name] = f.read()
keep = False
try:
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    for name in sorted(os.listdir(candidate_dir)):
        with open(os.path.join(candidate_dir, name), "rb") as src, open(os.path.join(folder, name), "wb") as dst:
            dst.write(src.read())
    print("building", flush=True)
    subprocess.run(["sleep", "30"])
finally:
    if not keep:
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
        for name, content in snapshot.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(content)
