-- Due deliveries are claimed in (next_retry_at, id) order: with id in the index the
-- claim walks the index and stops at its LIMIT instead of sorting every pending row.
-- DropIndex
DROP INDEX "webhook_deliveries_status_next_retry_at_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_retry_at_id_idx" ON "webhook_deliveries"("status", "next_retry_at", "id");


