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

    await database.prisma.$transaction((tx) =>
      createOutboxRepository(tx).recordEvents("sandbox", [
        { type: "course.updated", data: { id: "crs_a" } },
        { type: "course.updated", data: { id: "crs_b" } },
      ]),
    );
    // The age is exact: whole milliseconds from the stored time to `now`, divided once.
    const [oldest] = await database.prisma.outboxEvent.findMany({ orderBy: { createdAt: "asc" }, take: 1 });
    const now = new Date(oldest.createdAt.getTime() + 90_003);
    for (const repository of [viaDriver, viaPrisma]) {
      const { pending, oldestAgeSeconds } = await repository.backlog(now);
      expect(pending).to.equal(2);
      expect(oldestAgeSeconds).to.equal(90.003);
    }
  });
});
