// Exports: a whole resource of the caller's environment, streamed, CC BY 4.0.
import { LICENSE_URL } from "../services/exports/index.ts";
import type { OperationHandler } from "./types.ts";

export const exportData: OperationHandler<"exportData"> = async (request, { caller, services, log }) => {
  const resource = request.query.resource ?? "equivalencies";
  const format = request.query.format ?? "csv";
  const { stream, contentType, extension } = await services.exports.exportData(caller, resource, format);
  // Status and headers are sent by now, so a failure can only cut the body short.
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "ERR_STREAM_PREMATURE_CLOSE") log.info({ resource, format }, "export abandoned by the client");
    else log.error({ err: error, resource, format }, "export failed mid-stream; the response was truncated");
  });
  const date = new Date().toISOString().slice(0, 10);
  return {
    status: 200,
    stream,
    headers: {
      "Content-Type": contentType,
      "Content-Disposition": `attachment; filename="${resource}-${caller.environment}-${date}.${extension}"`,
      Link: `<${LICENSE_URL}>; rel="license"`,
    },
  };
};
