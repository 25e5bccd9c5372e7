import { expect } from "chai";
import { mapIpedsRecord, mapJsonRecord } from "../../src/services/imports/institutions.ts";
import { cipEntryFrom, normalizeCipCode } from "../../src/services/imports/cip.ts";

const row = (overrides: Record<string, string> = {}) => ({
  UNITID: "110635",
  INSTNM: "University of California-Berkeley",
  CITY: "Berkeley",
  STABBR: "CA",
  SECTOR: "1",
  F1SYSNAM: "University of California",
  CYACTIVE: "1",
  ...overrides,
});

describe("IPEDS institution mapping", () => {
  it("maps sectors 1-4 to the three types and F1SYSNAM to system", () => {
    expect(mapIpedsRecord(row(), "direct")).to.deep.equal({
      row: {
        ipedsId: "110635",
        name: "University of California-Berkeley",
        city: "Berkeley",
        state: "CA",
        type: "four_year_public",
        system: "University of California",
        source: "direct",
      },
    });
    expect(mapIpedsRecord(row({ SECTOR: "2" }), "direct")).to.have.nested.property("row.type", "four_year_private");
    expect(mapIpedsRecord(row({ SECTOR: "3" }), "direct")).to.have.nested.property("row.type", "four_year_private");
    expect(mapIpedsRecord(row({ SECTOR: "4", F1SYSNAM: "-2" }), "channel_a")).to.deep.include({
      row: {
        ipedsId: "110635",
        name: "University of California-Berkeley",
        city: "Berkeley",
        state: "CA",
        type: "community_college",
        system: null,
        source: "channel_a",
      },
    });
  });

  it("skips sectors outside the mapping, inactive and malformed rows, saying why", () => {
    for (const sector of ["0", "5", "6", "7", "8", "9", "99"]) {
      expect(mapIpedsRecord(row({ SECTOR: sector }), "direct"))
        .to.have.property("skip")
        .that.contains("outside the mapping");
    }
    expect(mapIpedsRecord(row({ CYACTIVE: "2" }), "direct")).to.have.property(
      "skip",
      "not currently active (CYACTIVE)",
    );
    expect(mapIpedsRecord(row({ UNITID: "12x" }), "direct")).to.have.property("skip", "invalid UNITID");
    expect(mapIpedsRecord(row({ STABBR: "Oklahoma City" }), "direct")).to.have.property("skip", "invalid STABBR");
  });

  it("reads JSON objects in the service's own field names", () => {
    const mapped = mapJsonRecord(
      { ipedsId: "122977", name: "Santa Monica College", city: "Santa Monica", state: "ca", type: "community_college" },
      "channel_b",
    );
    expect(mapped).to.deep.equal({
      row: {
        ipedsId: "122977",
        name: "Santa Monica College",
        city: "Santa Monica",
        state: "CA",
        type: "community_college",
        system: null,
        source: "channel_b",
      },
    });
    expect(
      mapJsonRecord({ ipedsId: "122977", name: "X", city: "Y", state: "CA", type: "university" }, "direct"),
    ).to.have.property("skip", "type is outside the mapping");
  });
});

describe("CIP 2020 parsing", () => {
  it("normalises NCES and spreadsheet spellings", () => {
    expect(normalizeCipCode('="01.0101"')).to.equal("01.0101");
    expect(normalizeCipCode("1.0101")).to.equal("01.0101");
    expect(normalizeCipCode("11")).to.equal("11");
    expect(normalizeCipCode("11.07")).to.equal("11.07");
    expect(normalizeCipCode("11.7")).to.equal(null);
  });

  it("reads both file formats and drops retired codes", () => {
    expect(cipEntryFrom({ CIP_Code: "11.0701", CIP_Title: "Computer Science." })).to.deep.equal({
      code: "11.0701",
      title: "Computer Science",
      digits: 6,
    });
    expect(
      cipEntryFrom({
        CIPFamily: "11",
        CIPCode: '="11.07"',
        Action: "No substantive changes",
        CIPTitle: "Computer Science.",
      }),
    ).to.deep.equal({
      code: "11.07",
      title: "Computer Science",
      digits: 4,
    });
    expect(cipEntryFrom({ CIPCode: '="11.0199"', Action: "Deleted", CIPTitle: "Old." })).to.equal(null);
  });
});
