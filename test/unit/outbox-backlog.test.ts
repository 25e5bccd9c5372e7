// The outbox's backlog for the metrics (src/repositories/outbox.ts), on the suite's database: the
// same answer through the driver (Database.statement, what the server uses, so a scrape never loads
// Prisma's query compiler) and through Prisma's raw query (a repository without a driver).
import { expect } from "chai";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { createOutboxRepository } from "../../src/repositories/outbox.ts";

describe("outbox backlog (metrics)", () => {
  let database: TestDatabase;
  after(() => database.close());

  it("counts the undispatched events and the age of the oldest, through the driver or Prisma alike", async () => {
    database = await freshDatabase();
    const viaDriver = createOutboxRepository(database.prisma, database.statement);
    const viaPrisma = createOutboxRepository(database.prisma);
    expect(await viaDriver.backlog()).to.deep.equal({ pending: 0, oldestAgeSeconds: 0 });
    expect(await viaPrisma.backlog()).to.deep.equal({ pending: 0, oldestAgeSeconds: 0 });

    const before = Date.now();
    await database.prisma.$transaction((tx) =>
      createOutboxRepository(tx).recordEvents("sandbox", [
        { type: "course.updated", data: { id: "crs_a" } },
        { type: "course.updated", data: { id: "crs_b" } },
      ]),
    );
    const after = Date.now();
    const now = new Date(after + 90_000);
    for (const repository of [viaDriver, viaPrisma]) {
      const { pending, oldestAgeSeconds } = await repository.backlog(now);
      expect(pending).to.equal(2);
      // The events' created time lies between before and after (kept to the millisecond).
      expect(oldestAgeSeconds).to.be.within((now.getTime() - after) / 1000, (now.getTime() - before) / 1000);
    }
  });
});
