// Operations the contract describes whose implementation has not landed yet
// answer 501 problems, so clients see the contract's shape without guessing.
import { NotImplementedError } from "../errors.ts";
import type { OperationHandler, OperationId } from "./types.ts";

export function notImplemented<K extends OperationId>(operationId: K): OperationHandler<K> {
  return async () => {
    throw new NotImplementedError(operationId);
  };
}
