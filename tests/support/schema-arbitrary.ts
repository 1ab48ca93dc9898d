import fc from 'fast-check';

export type JsonSchema = Record<string, any>;

/**
 * Where a schema node sits (property names and `[]` for array items, from the root schema's
 * name), so a caller can put values the schema cannot express in its place: real event names,
 * URLs a service accepts.
 */
export type SchemaRefinement = (path: readonly string[], schema: JsonSchema) => fc.Arbitrary<unknown> | undefined;

/** Resolves a local `$ref` (`#/components/schemas/X`) of an OpenAPI document; other nodes as they are. */
export function deref(doc: JsonSchema, node: JsonSchema): JsonSchema {
  let current = node;
  for (let hops = 0; typeof current.$ref === 'string'; hops++) {
    if (hops > 16) throw new Error(`schema-arbitrary: $ref cycle at ${node.$ref}`);
    const parts = (current.$ref as string).replace(/^#\//, '').split('/');
    current = parts.reduce<any>((at, part) => at?.[part], doc);
    if (!current) throw new Error(`schema-arbitrary: unresolved $ref ${node.$ref}`);
  }
  return current;
}

/**
 * Text a service takes as it is: not blank once trimmed (the services trim), no NUL (refused
 * on purpose), within the schema's length in UTF-16 code units. Mostly short and mixed Unicode,
 * sometimes as long as allowed.
 */
export function validText(minLength = 0, maxLength = 200): fc.Arbitrary<string> {
  const fits = (s: string) => s.length <= maxLength && s.trim().length >= Math.max(minLength, 1) && !s.includes('\u0000');
  const short = fc.string({ unit: 'grapheme', minLength: Math.max(minLength, 1), maxLength: Math.min(maxLength, 40) });
  const long = fc.integer({ min: Math.max(minLength, 1), max: maxLength }).map((n) => 'x'.repeat(n));
  return fc.oneof({ arbitrary: short, weight: 5 }, { arbitrary: long, weight: 1 }).filter(fits);
}

/**
 * A fast-check arbitrary of values valid against a JSON Schema of an OpenAPI 3.1 document:
 * `$ref`, `anyOf`/`oneOf`, `enum`, `const`, type lists, strings (length, `uuid`, `date-time`),
 * integers (bounds), booleans, null, arrays and objects (required always, optional sometimes,
 * nothing else when `additionalProperties: false`). `refine` overrides any node.
 */
export function schemaArbitrary(doc: JsonSchema, schema: JsonSchema, refine: SchemaRefinement = () => undefined, path: readonly string[] = []): fc.Arbitrary<unknown> {
  const refined = refine(path, schema);
  if (refined) return refined;
  const node = deref(doc, schema);
  if (node !== schema) return schemaArbitrary(doc, node, refine, path);
  const alternatives = (node.anyOf ?? node.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => schemaArbitrary(doc, s, refine, path)));
  if ('const' in node) return fc.constant(node.const);
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]));
  const types: string[] = Array.isArray(node.type) ? node.type : node.type ? [node.type] : ['object'];
  return fc.oneof(...types.map((type) => ofType(doc, node, type, refine, path)));
}

function ofType(doc: JsonSchema, node: JsonSchema, type: string, refine: SchemaRefinement, path: readonly string[]): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: node.minimum ?? -1_000_000, max: node.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: node.minimum ?? -1e9, max: node.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'string':
      if (node.format === 'uuid') return fc.uuid();
      if (node.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      return validText(node.minLength ?? 0, node.maxLength ?? 200);
    case 'array': {
      const items = schemaArbitrary(doc, node.items ?? {}, refine, [...path, '[]']);
      return fc.array(items, { minLength: node.minItems ?? 0, maxLength: Math.min(node.maxItems ?? 4, 4) });
    }
    case 'object': {
      const properties = (node.properties ?? {}) as Record<string, JsonSchema>;
      const model = Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, schemaArbitrary(doc, s, refine, [...path, name])]));
      return fc.record(model, { requiredKeys: (node.required ?? []) as string[] });
    }
    default:
      throw new Error(`schema-arbitrary: type '${type}' at ${path.join('.') || '$'} is not supported`);
  }
}
