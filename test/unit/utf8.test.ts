import { expect } from "chai";
import { decodeUtf8Strict, firstInvalidUtf8Byte } from "../../src/kernel/utf8.ts";

describe("strict UTF-8 decoding", () => {
  it("finds the first byte that is not UTF-8: Latin-1, a truncated sequence, an overlong form, a surrogate", () => {
    expect(firstInvalidUtf8Byte(Buffer.from("Caf\u00e9 ok", "utf8"))).to.equal(null);
    expect(firstInvalidUtf8Byte(Buffer.from("Caf\u00e9", "latin1"))).to.equal(3);
    expect(firstInvalidUtf8Byte(Buffer.from([0x61, 0xe2, 0x82]))).to.equal(1);
    expect(firstInvalidUtf8Byte(Buffer.from([0x61, 0x62, 0xc0, 0xaf]))).to.equal(2);
    expect(firstInvalidUtf8Byte(Buffer.from([0xed, 0xa0, 0x80]))).to.equal(0);
    expect(firstInvalidUtf8Byte(Buffer.from([0xf0, 0x9f, 0x98, 0x80, 0xff]))).to.equal(4);
  });

  it("decodes UTF-8 and refuses the rest with the offset and the byte", () => {
    expect(decodeUtf8Strict(Buffer.from("\u00e9t\u00e9", "utf8"))).to.deep.equal({ text: "\u00e9t\u00e9" });
    expect(decodeUtf8Strict(Buffer.from("ab\u00e9", "latin1"))).to.deep.equal({ invalidAt: 2, byte: 0xe9 });
  });
});
