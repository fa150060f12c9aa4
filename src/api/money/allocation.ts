/**
 * Splitting an amount into parts, exact in integer minor units.
 */

/**
 * Splits `amount` over `weights` in proportion, in integers that add up to `amount` exactly:
 * the largest remainder method (each part gets the floor of its exact share, then the parts
 * with the largest remainders get one more unit each; ties go to the earlier weight).
 * Negative weights count as zero; all-zero weights split evenly. Computed in BigInt, so
 * products of large amounts and weights stay exact.
 */
export function allocate(amount: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return []
  const base = (
    weights.every((w) => w <= 0) ? weights.map(() => 1) : weights.map((w) => Math.max(w, 0))
  ).map((w) => BigInt(w))
  const total = base.reduce((a, b) => a + b, 0n)
  const sign = amount < 0 ? -1 : 1
  const whole = BigInt(Math.abs(amount))
  const shares = base.map((w) => (whole * w) / total)
  let left = whole - shares.reduce((a, b) => a + b, 0n)
  const order = base
    .map((w, i) => ({ i, remainder: (whole * w) % total }))
    .sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1))
  for (const { i } of order) {
    if (left <= 0n) break
    shares[i] = (shares[i] ?? 0n) + 1n
    left -= 1n
  }
  return shares.map((s) => Number(s) * sign)
}
