// The mis-generation detector of `npm run clients:partners` (scripts/partners/checks.ts) fails on
// what it lists: generator log lines outside the accepted warnings, and models that lose a type,
// a null or an enum of the document. No generator is run here: the inputs are small excerpts.
import { expect } from "chai";
import {
  checkEnumNames,
  checkLog,
  checkModels,
  enumNameKey,
  type GeneratedModels,
} from "../../scripts/partners/checks.ts";
import { RULES } from "../../scripts/partners/languages.ts";

const document = {
  openapi: "3.0.3",
  components: {
    schemas: {
      Level: { type: "string", enum: ["lower", "upper"] },
      Course: {
        type: "object",
        properties: {
          id: { type: "string" },
          level: { allOf: [{ $ref: "#/components/schemas/Level" }] },
          cipCode: { type: "string", nullable: true },
          status: { type: "string", enum: ["a", "b"] },
          metadata: { type: "object", nullable: true },
          prerequisite: { allOf: [{ $ref: "#/components/schemas/Course" }], nullable: true },
        },
      },
    },
  },
};
const field = (type: string, nullable = false) => ({ type, nullable });
const good = (): GeneratedModels => ({
  models: new Map([
    [
      "Course",
      new Map([
        ["id", field("String")],
        ["level", field("Level")],
        ["cipCode", field("String", true)],
        ["status", field("StatusEnum")],
        ["metadata", field("Object", true)],
        ["prerequisite", field("Course", true)],
      ]),
    ],
  ]),
  enumTypes: new Set(["Level", "StatusEnum"]),
});
const checksOf = (models: GeneratedModels) =>
  checkModels(document, models, RULES.java).map((f) => `${f.check} ${f.where}`);

describe("the partners' mis-generation checks", () => {
  it("pass a faithful model (a free-form object may be Object)", () => {
    expect(checksOf(good())).to.deep.equal([]);
  });

  it("find a concrete property typed Object, a lost null, a dropped enum and a missing property", () => {
    const models = good();
    const course = models.models.get("Course")!;
    course.set("prerequisite", field("Object", true));
    course.set("cipCode", field("String", false));
    course.set("status", field("String"));
    course.delete("id");
    models.enumTypes.delete("Level");
    expect(checksOf(models)).to.deep.equal([
      "property-missing Course.id",
      "enum-dropped Course.level",
      "lost-null Course.cipCode",
      "enum-dropped Course.status",
      "typed-as-any Course.prerequisite",
      "enum-dropped #/components/schemas/Level",
    ]);
  });

  it("find a missing model", () => {
    expect(checksOf({ models: new Map(), enumTypes: new Set(["Level", "StatusEnum"]) })).to.deep.equal([
      "model-missing #/components/schemas/Course",
    ]);
  });

  it("fail on errors, named problems and unexplained warnings in the log, not on accepted ones", () => {
    const log = [
      "[main] INFO  o.o.codegen.DefaultGenerator - writing file Course.java",
      "[main] WARN  o.o.codegen.utils.ModelUtils - Failed to get the schema name: null",
      "[main] WARN  o.o.codegen.DefaultCodegen - OpenAPI 3.1 support is still in beta.",
      "[main] ERROR o.o.codegen.OpenAPINormalizer - Type object not yet supported in openapi-normalizer",
      "[main] WARN  o.o.codegen.DefaultCodegen - Multiple schemas found in the oneOf: A, B",
      "[main] WARN  o.o.codegen.DefaultCodegen - something new",
    ].join("\n");
    expect(checkLog(log, 0, true).map((f) => f.check)).to.deep.equal([
      "unsupported-construct",
      "generator-failed",
      "ambiguous-composition",
      "unexplained-warning",
    ]);
    expect(checkLog("", 1, true).map((f) => f.check)).to.deep.equal(["generator-failed"]);
  });

  it("accept Python's free-form Any warning only when the models pass", () => {
    const log =
      "[main] WARN  o.o.c.l.AbstractPythonCodegen - Codegen property is null (e.g. map/dict of undefined type). Default to typing.Any.";
    expect(checkLog(log, 0, true)).to.deep.equal([]);
    expect(checkLog(log, 0, false).map((f) => f.check)).to.deep.equal(["any-fallback"]);
  });

  it("read fields, JSON names, nullability and enums from Java, Python, Go and TypeScript sources", () => {
    const java = RULES.java.read([
      {
        path: "Course.java",
        text: `public class Course {
  public static final String SERIALIZED_NAME_CIP_CODE = "cipCode";
  @SerializedName(SERIALIZED_NAME_CIP_CODE)
  @jakarta.annotation.Nullable
  private String cipCode;
  public enum StatusEnum {
}`,
      },
    ]);
    expect(java.models.get("Course")?.get("cipCode")).to.deep.equal({ type: "String", nullable: true });
    expect(java.enumTypes.has("StatusEnum")).to.equal(true);
    const python = RULES.python.read([
      {
        path: "course.py",
        text: `class Course(BaseModel):
    cip_code: Optional[StrictStr] = Field(description="x", alias="cipCode")
    status: StrictStr

    @field_validator('status')
`,
      },
    ]);
    expect(python.models.get("Course")?.get("cipCode")).to.include({ type: "Optional[StrictStr]", nullable: true });
    expect(python.models.get("Course")?.get("status")).to.include({ validated: true, nullable: false });
    const go = RULES.go.read([
      {
        path: "model_course.go",
        text: 'type Course struct {\n\tCipCode NullableString `json:"cipCode"`\n}\ntype Level string\n',
      },
    ]);
    expect(go.models.get("Course")?.get("cipCode")).to.deep.equal({ type: "NullableString", nullable: true });
    expect(go.enumTypes.has("Level")).to.equal(true);
    const ts = RULES["typescript-fetch"].read([
      {
        path: "Course.ts",
        text: "export interface Course {\n    cipCode: string | null;\n}\nexport function CourseFromJSONTyped(json: any) {\n    return {\n        'cipCode': json['cip_code'],\n    };\n}\n",
      },
    ]);
    expect(ts.models.get("Course")?.get("cip_code")).to.deep.equal({ type: "string | null", nullable: true });
  });

  it("name every enum constant as its value, and find the ones named one off, in all five languages", () => {
    // What OpenAPI Generator wrote for LetterGrade before x-enum-varnames, and what it writes with them.
    const sources = {
      java: [
        'public enum LetterGrade {\n  A_("A+"),\n  A("A"),\n  A_2("A-"),\n  UNKNOWN_DEFAULT_OPEN_API("unknown_default_open_api");\n',
        'public enum LetterGrade {\n  A_PLUS("A+"),\n  A("A"),\n  A_MINUS("A-"),\n  UNKNOWN_DEFAULT_OPEN_API("unknown_default_open_api");\n',
      ],
      python: [
        "class LetterGrade(str, Enum):\n    A_PLUS = 'A+'\n    A = 'A'\n    'unknown_default_open_api' = 'unknown_default_open_api'\n\n    @classmethod\n",
        "class LetterGrade(str, Enum):\n    A_PLUS = 'A+'\n    A = 'A'\n    A_MINUS = 'A-'\n\n    @classmethod\n",
      ],
      csharp: [
        'if (value == LetterGrade.A)\n    return "A+";\nif (value == LetterGrade.A2)\n    return "A";',
        'if (value == LetterGrade.A_PLUS)\n    return "A+";\nif (value == LetterGrade.A)\n    return "A";',
      ],
      go: [
        'const (\n\tLETTERGRADE_A LetterGrade = "A+"\n\tLETTERGRADE_A2 LetterGrade = "A"\n)',
        'const (\n\tLETTERGRADE_A_PLUS LetterGrade = "A+"\n\tLETTERGRADE_A LetterGrade = "A"\n)',
      ],
      "typescript-fetch": [
        "export const LetterGrade = {\n    A: 'A+',\n    A2: 'A',\n} as const;",
        "export const LetterGrade = {\n    A_PLUS: 'A+',\n    A: 'A',\n    ClockHour: 'clock_hour',\n} as const;",
      ],
    } as const;
    for (const [language, [before, after]] of Object.entries(sources)) {
      const read = (text: string) => RULES[language as keyof typeof RULES].read([{ path: "x", text }]).constants ?? [];
      expect(read(after).length, language).to.be.greaterThan(1);
      expect(checkEnumNames(read(after)), language).to.deep.equal([]);
      expect(checkEnumNames(read(before)).length, language).to.be.greaterThan(0);
    }
    expect(enumNameKey("A_MINUS", "name")).to.equal(enumNameKey("A-", "value"));
    expect(enumNameKey("READ_PUBLIC", "name")).to.equal(enumNameKey("read:public", "value"));
    expect(enumNameKey("C", "name")).not.to.equal(enumNameKey("C+", "value"));
  });
});
