/** The JSON Schema of the policy file, from the rule lists in ./policy.ts (shipped as schema/policy.schema.json; a test keeps the two the same). */
import { LINT_RULES, SEVERITIES } from './policy.js';

export function policySchema(): Record<string, unknown> {
  const rules = {
    type: 'object',
    additionalProperties: false,
    properties: {
      'require-params': { type: 'array', items: { type: 'string', minLength: 1 }, description: 'query parameters every destination needs, e.g. [utm_source, utm_campaign]' },
      'forbid-insecure': { type: 'boolean', description: 'no http:// destinations' },
      'alias-pattern': { type: 'string', description: 'a regular expression (JavaScript, u flag) every alias must match, e.g. "^[a-z0-9-]+$"' },
      'allowed-hosts': { type: 'array', items: { type: 'string', pattern: '^(\\*|(\\*\\.)?[A-Za-z0-9.-]+)$' }, description: 'destinations only on these hosts: example.com exactly, *.example.com any host under it, * any' },
    },
  };
  const severity = { enum: ['off', ...SEVERITIES] };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'policy.schema.json',
    title: 'linkctl policy',
    description: 'Rules every write keeps (checked before anything is sent), and the severities of `linkctl lint`. Found by --policy FILE, LINKCTL_POLICY or the profile\'s `policy`.',
    type: 'object',
    additionalProperties: false,
    required: ['version'],
    properties: {
      $schema: { type: 'string' },
      version: { const: 1 },
      rules,
      scopes: {
        type: 'array',
        description: 'rules for the links of one campaign or one short domain; they replace the top-level rules key by key',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['rules'],
          oneOf: [{ required: ['campaign'] }, { required: ['domain'] }],
          properties: { campaign: { type: 'string', minLength: 1 }, domain: { type: 'string', minLength: 1 }, rules },
        },
      },
      lint: {
        type: 'object',
        additionalProperties: false,
        properties: Object.fromEntries(Object.entries(LINT_RULES).map(([name, rule]) => [
          name,
          {
            description: `${rule.what}; default ${rule.severity}${'days' in rule ? `, ${rule.days} days` : ''}`,
            oneOf: [
              severity,
              {
                type: 'object',
                additionalProperties: false,
                properties: { severity, ...('days' in rule ? { days: { type: 'integer', minimum: 1, maximum: 36500 } } : {}) },
              },
            ],
          },
        ])),
      },
    },
  };
}
