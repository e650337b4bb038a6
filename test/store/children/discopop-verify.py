# The step of DiscoPoP's repair loop a signal can cut short: while a candidate patch set is built it
# stands in patch_generator/<id>/, and the generated set is put back only by Python's own cleanup
# (a `finally`). Python runs that cleanup for an exception, which SIGINT becomes; SIGTERM, SIGHUP
# and SIGKILL end the interpreter without it. Arguments: the suggestion's folder, the candidate's.
import pathlib
import subprocess
import sys


def contents(folder):
    return {entry.name: entry.read_bytes() for entry in sorted(folder.iterdir()) if entry.is_file()}


def replace_contents(folder, files):
    for entry in folder.iterdir():
        entry.unlink()
    for name, data in files.items():
        (folder / name).write_bytes(data)


def build_candidate(suggestion_folder, candidate_folder):
    generated = contents(suggestion_folder)
    try:
        replace_contents(suggestion_folder, contents(candidate_folder))
        print("building", flush=True)
        subprocess.run(["sleep", "30"])
    finally:
        replace_contents(suggestion_folder, generated)


build_candidate(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]))
