-- Changes made at the server's command line are audited: the operator (the OS user running the
-- CLI) is an actor kind of its own.
ALTER TYPE "CredentialKind" ADD VALUE IF NOT EXISTS 'operator';

-- An audit entry keeps the service's own request id, and beside it the X-Request-Id the client sent.
ALTER TABLE "audit_entries" ADD COLUMN "client_request_id" TEXT;

-- An in-progress idempotency key names the run that holds it. A retry of the same request takes the
-- key over at once (its first run may have died with the server); only the holder's change can
-- store the answer, so whichever run commits first answers both and the other rolls back.
ALTER TABLE "idempotency_records" ADD COLUMN "claim_token" TEXT;
