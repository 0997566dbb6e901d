// The part of seek-bzip (no bundled types) that ./bzip2.ts uses: Bunzip.decode(input, output, multistream)
// with stream objects of its own duck type (lib/stream.js).
declare module 'seek-bzip' {
  interface ByteInput {
    readByte(): number;
    read(buffer: Uint8Array, offset: number, length: number): number;
    eof(): boolean;
  }
  interface ByteOutput {
    writeByte(byte: number): void;
  }
  const Bunzip: {
    decode(input: ByteInput, output: ByteOutput, multistream?: boolean): void;
  };
  export = Bunzip;
}
