/** The JSON Schema of the account file, from the format in ./model.ts (`linkctl export --schema`; shipped as schema/linkctl.schema.json). */
import { KINDS, NONE, NONE_FIELDS, specs, type Field } from './model.js';

/** A link option that also takes `none` (model.ts): the link has none of it. */
function orNone(schema: Record<string, unknown>): Record<string, unknown> {
  const { description, ...rest } = schema;
  return { description: `${String(description)}; or \`${NONE}\`: the link has none (counts as stated, so apply --yes needs no --allow-clear for it)`, anyOf: [rest, { const: NONE }] };
}

function fieldSchema(field: Field): Record<string, unknown> {
  const description = field.flags?.length ? `${field.description} (as ${field.flags.join(', ')} of \`link add\`)` : field.description;
  const name = field.ref ? { type: 'string', description: `the name of one of the file's ${field.ref}` } : { type: 'string' };
  switch (field.type) {
    case 'boolean':
      return { type: 'boolean', description };
    case 'integer':
      return { type: 'integer', minimum: 1, description };
    case 'string':
      if (field.secret) return { type: 'string', description, pattern: '^\\$\\{env:[A-Za-z_][A-Za-z0-9_]*\\}$' };
      return { ...name, description, ...(field.choices ? { enum: [...field.choices] } : {}) };
    case 'list':
      return { type: 'array', description, items: name, uniqueItems: true };
    case 'map':
      return { type: 'object', description, additionalProperties: { type: 'string' } };
    case 'object':
      if (field.properties) {
        return { type: 'object', description, additionalProperties: false, properties: Object.fromEntries(Object.entries(field.properties).map(([k, f]) => [k, fieldSchema(f)])) };
      }
      return { description, type: ['string', 'object', 'array'] };
  }
}

export function buildSchema(): Record<string, unknown> {
  const all = specs();
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'linkctl.schema.json',
    title: 'linkctl account file',
    description: 'Records identified by natural keys, references by those keys. `linkctl plan -f FILE` shows what `linkctl apply -f FILE` would change.',
    type: 'object',
    additionalProperties: false,
    required: ['version'],
    properties: {
      $schema: { type: 'string' },
      version: { const: 1 },
      ...Object.fromEntries(
        KINDS.map((kind) => {
          const spec = all[kind];
          return [
            kind,
            {
              type: 'array',
              description: `${spec.noun} records${spec.readOnly ? ' (read only: references by name)' : ''}`,
              items: {
                type: 'object',
                additionalProperties: false,
                required: Object.entries(spec.fields).filter(([, f]) => f.required).map(([k]) => k),
                properties: Object.fromEntries(Object.entries(spec.fields).map(([k, f]) => [k, kind === 'links' && NONE_FIELDS.includes(k) ? orNone(fieldSchema(f)) : fieldSchema(f)])),
              },
            },
          ];
        }),
      ),
    },
  };
}
