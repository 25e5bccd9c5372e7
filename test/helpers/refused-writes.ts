// A write the database refuses, for a test's duration: a trigger raises an exception on INSERT or
// UPDATE of a table (when `when` holds), standing for a failure in the middle of a change (the
// window between two writes a crash could fall into). Plain PostgreSQL; PGlite runs it too.
import type { PrismaClient } from "../../generated/prisma/client.ts";

export async function withRefusedWrite<T>(
  prisma: PrismaClient,
  refused: { table: string; on: "INSERT" | "UPDATE"; when?: string },
  run: () => Promise<T>,
): Promise<T> {
  const condition = refused.when ?? "true";
  await prisma.$executeRawUnsafe(`CREATE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF ${condition} THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`);
  await prisma.$executeRawUnsafe(
    `CREATE TRIGGER refuse_write BEFORE ${refused.on} ON ${refused.table} FOR EACH ROW EXECUTE FUNCTION refuse_write()`,
  );
  try {
    return await run();
  } finally {
    await prisma.$executeRawUnsafe(`DROP TRIGGER refuse_write ON ${refused.table}`);
    await prisma.$executeRawUnsafe(`DROP FUNCTION refuse_write()`);
  }
}
