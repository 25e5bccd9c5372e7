// Every (operationId, documented response key) pair that expectContract has
// validated in this mocha process; the coverage gate compares it with the
// document after the whole suite (see contract-coverage.ts).

/** A documented response of an operation: the status as written in the spec, or "default". */
export interface ContractPair {
  operationId: string;
  status: string;
}

const recorded = new Set<string>();

export function pairKey(pair: ContractPair): string {
  return `${pair.operationId} ${pair.status}`;
}

export function recordContractPair(pair: ContractPair): void {
  recorded.add(pairKey(pair));
}

export function recordedPairKeys(): ReadonlySet<string> {
  return recorded;
}
