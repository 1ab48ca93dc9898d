/**
 * A service's zod config shape (services/<name>/src/config.ts) as the JSON schemas of its chart's
 * `config` values. The chart renders each value with `tpl (toString v)` and leaves out null and
 * "", so every key also accepts null, "" (the service's default) and a template (`{{ ... }}`).
 */
import { z } from 'zod';
import { SECRET_VARS, type JsonSchema } from './service-values.ts';

/** Left out of the ConfigMap (the code default applies), or filled in by `tpl` at render time. */
const UNSET_OR_TEMPLATE = ['^$', '\\{\\{'];

type Field = { type?: string; enum?: string[]; pattern?: string; minimum?: number; maximum?: number; default?: unknown };

/** Keys the chart's ConfigMap template sets itself, whatever `config` says. */
function chartManaged(component: string): Record<string, string> {
  return {
    [`${component.toUpperCase().replace(/-/g, '_')}_PORT`]: 'Set by the chart from containerPort.',
    MIGRATE_ON_START: 'Set by the chart from migrations.enabled.',
  };
}

/** `config.properties` for one service: every variable of its shape except the credentials. */
export function envValueSchemas(component: string, shape: z.ZodRawShape): Record<string, JsonSchema> {
  // io: 'input' describes what the variable accepts (before defaults and transforms).
  const json = z.toJSONSchema(z.object(shape), { io: 'input', unrepresentable: 'any', target: 'draft-7' }) as { properties: Record<string, Field> };
  const managed = chartManaged(component);
  const out: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(json.properties)) {
    if (SECRET_VARS.includes(name)) continue;
    const schema = valueSchema(name, field);
    out[name] = managed[name] ? { description: managed[name], ...schema } : schema;
  }
  return out;
}

function valueSchema(name: string, field: Field): JsonSchema {
  const fallback = field.default === undefined ? {} : { default: field.default };
  if (field.type === 'integer') {
    const min = field.minimum ?? 0;
    // `.int()` alone sets the maximum to MAX_SAFE_INTEGER: no real bound.
    const max = field.maximum !== undefined && field.maximum < Number.MAX_SAFE_INTEGER ? field.maximum : undefined;
    return { type: ['integer', 'string', 'null'], minimum: min, ...(max === undefined ? {} : { maximum: max }), pattern: alternatives(`^(?:${intRangePattern(min, max)})$`), ...fallback };
  }
  if (field.type !== 'string') throw new Error(`${name}: no chart value schema for ${JSON.stringify(field)} (scripts/chart-schemas/env-values.ts)`);
  if (field.enum) {
    const values = `^(?:${field.enum.map(escapeRegex).join('|')})$`;
    // YAML `true`/`false` arrive as booleans and render as the strings the service reads.
    const isBool = field.enum.includes('true') && field.enum.includes('false');
    return { type: isBool ? ['boolean', 'string', 'null'] : ['string', 'null'], pattern: alternatives(values), ...fallback };
  }
  if (field.pattern) return { type: ['string', 'null'], pattern: alternatives(`(?:${field.pattern})`), ...fallback };
  // Free text (URLs, prefixes): any scalar renders to a string the service may take, as before.
  return { type: ['string', 'number', 'boolean', 'null'], ...fallback };
}

function alternatives(valid: string): string {
  return [...UNSET_OR_TEMPLATE, valid].join('|');
}

function escapeRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A regex (without anchors) for the decimal integers min..max (max undefined: no bound), no
 * leading zeros: env values are strings, so JSON Schema's minimum/maximum cannot bound them.
 */
export function intRangePattern(min: number, max?: number): string {
  if (!Number.isSafeInteger(min) || min < 0 || (max !== undefined && (!Number.isSafeInteger(max) || max < min))) {
    throw new Error(`intRangePattern: unsupported range ${min}..${max}`);
  }
  const parts: string[] = [];
  const top = max ?? 10 ** String(min).length - 1;
  for (let lo = min; lo <= top; lo = 10 ** String(lo).length) {
    const hi = Math.min(top, 10 ** String(lo).length - 1);
    parts.push(...sameLength(String(lo), String(hi)));
  }
  // Unbounded: any number with more digits than min.
  if (max === undefined) parts.push(`[1-9][0-9]{${String(min).length},}`);
  return parts.join('|');
}

/** Patterns for lo..hi, two decimal strings of the same length. */
function sameLength(lo: string, hi: string): string[] {
  if (lo === hi) return [lo];
  const rest = lo.length - 1;
  if (lo[0] === hi[0]) return sameLength(lo.slice(1), hi.slice(1)).map((p) => lo[0] + p);
  const zeros = '0'.repeat(rest);
  const nines = '9'.repeat(rest);
  let first = Number(lo[0]);
  let last = Number(hi[0]);
  const out: string[] = [];
  if (lo.slice(1) !== zeros) {
    out.push(...sameLength(lo.slice(1), nines).map((p) => lo[0] + p));
    first += 1;
  }
  const tail = hi.slice(1) !== nines ? sameLength(zeros, hi.slice(1)).map((p) => hi[0] + p) : [];
  if (tail.length) last -= 1;
  if (first <= last) out.push(digitClass(first, last) + (rest === 0 ? '' : rest === 1 ? '[0-9]' : `[0-9]{${rest}}`));
  return [...out, ...tail];
}

function digitClass(a: number, b: number): string {
  return a === b ? String(a) : `[${a}-${b}]`;
}
