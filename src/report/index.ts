// PLACEHOLDER: `show` and `report` land with the review work.
export async function show(options: { dotDir: string; id?: string }): Promise<number> {
  throw new Error(`show not implemented yet (${options.dotDir})`);
}

export async function report(options: { dotDir: string }): Promise<number> {
  throw new Error(`report not implemented yet (${options.dotDir})`);
}
