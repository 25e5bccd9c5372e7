-- A publication stores the state of an equivalency only when it differs from what the previous
-- publication of the same organization and environment stored for it; an unchanged record's row
-- names the dataset version that holds its state instead of copying it. state_hash is the SHA-256
-- of the state without its datasetVersionId (the one field that differs in every publication).
ALTER TABLE "dataset_records" ALTER COLUMN "state" DROP NOT NULL;
ALTER TABLE "dataset_records" ADD COLUMN "state_hash" TEXT;
ALTER TABLE "dataset_records" ADD COLUMN "state_dataset_version_id" TEXT;
ALTER TABLE "dataset_records" ADD CONSTRAINT "dataset_records_state_or_reference"
    CHECK (("state" IS NULL) = ("state_dataset_version_id" IS NOT NULL));
ALTER TABLE "dataset_records" ADD CONSTRAINT "dataset_records_state_dataset_version_id_fkey"
    FOREIGN KEY ("state_dataset_version_id") REFERENCES "dataset_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
CREATE UNIQUE INDEX "dataset_records_dataset_version_id_equivalency_id_key"
    ON "dataset_records"("dataset_version_id", "equivalency_id");
