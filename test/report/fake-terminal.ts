// An output stream for reporter tests: collects what is written and says whether it is a terminal.
import { Writable } from 'node:stream';

export class FakeTerminal extends Writable {
  readonly isTTY: boolean;
  readonly columns = 120;
  text = '';

  constructor(o: { tty: boolean }) {
    super({ decodeStrings: false });
    this.isTTY = o.tty;
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}
