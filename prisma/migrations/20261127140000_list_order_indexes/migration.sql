-- Cursor paging: every list's order is an index, so a page after a cursor starts with an index
-- range scan at the cursor's key. Institutions are listed by (name, id) and API keys by
-- (created_at, id); their indexes end with the order's tie-breaker now.

-- DropIndex
DROP INDEX "institutions_environment_name_idx";

-- DropIndex
DROP INDEX "api_keys_organization_id_environment_idx";

-- CreateIndex
CREATE INDEX "institutions_environment_name_id_idx" ON "institutions"("environment", "name", "id");

-- CreateIndex
CREATE INDEX "api_keys_organization_id_environment_created_at_id_idx" ON "api_keys"("organization_id", "environment", "created_at", "id");
