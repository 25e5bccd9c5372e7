// By hand: the server's memory during the CSV header attack (an 8 MB header of 4,000,000 columns
// sent three times at once with dryRun=true) against its idle memory, in one process, on the
// embedded database. Prints idle RSS, the peak RSS sampled every 20 ms, and each answer's size.
import { bearer, createTestApp } from "../../test/helpers/app.ts";

const t = await createTestApp();
const header = `source_institution,source_course_1,target_institution${",x".repeat(4_000_000)}`;
const body = `${header}\ninst_122977,HIST 11,inst_110635\n`;
global.gc?.();
const idle = process.memoryUsage().rss;
let peak = idle;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const started = Date.now();
const answers = await Promise.all(
  [1, 2, 3].map(() =>
    t.http
      .post("/api/v1/equivalencies/imports?dryRun=true")
      .set(bearer(t.keys.live))
      .set("Content-Type", "text/csv")
      .send(body),
  ),
);
clearInterval(sampler);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
console.log(
  `idle ${mb(idle)} MB, peak ${mb(peak)} MB (+${mb(peak - idle)} MB) for 3 concurrent ${mb(body.length)} MB headers;`,
  `answers ${answers.map((a) => `${a.status} ${a.text.length} B`).join(", ")} in ${Date.now() - started} ms`,
);
await t.close();
