// A minimal terminal for the tests: replays what the reporter wrote (text, CR, LF and the cursor,
// erase and mode sequences cli-progress and readline use) and returns the lines a person would see
// once it is done. Lines never wrap: each printed line stays one screen line, so a test can compare
// them with the log lines it expects.
export function renderScreen(output: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  let col = 0;
  const put = (text: string) => {
    const line = lines[row]!.padEnd(col);
    lines[row] = line.slice(0, col) + text + line.slice(col + text.length);
    col += text.length;
  };
  const pattern = /\x1b\[([?\d;]*)([A-Za-z])|\x1b[78]|\r|\n|[^\x1b\r\n]+/g;
  for (const match of output.matchAll(pattern)) {
    const [token, params = '', command] = match;
    if (token === '\r') col = 0;
    else if (token === '\n') {
      // The terminal's line discipline turns LF into CR LF (onlcr, on by default).
      col = 0;
      row += 1;
      if (row === lines.length) lines.push('');
    } else if (command === undefined && !token.startsWith('\x1b')) put(token);
    else if (command === 'A') row = Math.max(0, row - Number(params || 1));
    else if (command === 'G') col = Number(params || 1) - 1;
    else if (command === 'K')
      lines[row] =
        params === '2' ? '' : params === '1' ? ' '.repeat(col) + lines[row]!.slice(col) : lines[row]!.slice(0, col);
    else if (command === 'J') {
      lines[row] = lines[row]!.slice(0, col);
      lines.length = row + 1;
    }
    // Colours, cursor visibility, line-wrap mode: nothing on screen changes.
    else if (command === 'm' || command === 'h' || command === 'l' || token === '\x1b7' || token === '\x1b8') continue;
    else throw new Error(`renderScreen: unsupported escape sequence ${JSON.stringify(token)}`);
  }
  return lines.map((line) => line.trimEnd());
}
