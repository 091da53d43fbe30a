/**
 * The protocol names and shapes of the extension come from `plansight schema`: the generated
 * module must match a fresh generation, and what package.json declares by hand (the tools'
 * input schemas, the menus' `viewItem` values) must agree with the schema.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { GENERATED_PATH, generateProtocol, plansightBin, readSchema, type JsonSchema, type ProtocolSchema } from '../../scripts/generateProtocol';
import { isFinished, remainingOf } from '../../src/protocol';
import { EXTENSION_ROOT } from './fixtures';

interface Manifest {
  contributes: {
    languageModelTools: { name: string; modelDescription: string; inputSchema: JsonSchema }[];
    menus: Record<string, { command: string; when?: string }[]>;
    commands: { command: string; category?: string }[];
  };
}

const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION_ROOT, 'package.json'), 'utf8')) as Manifest;

let schema: ProtocolSchema;

before(() => {
  const bin = plansightBin(EXTENSION_ROOT);
  assert.ok(fs.existsSync(bin), `The plansight CLI is needed: set PLANSIGHT_BIN or create ${bin}`);
  schema = readSchema(bin);
});

function def(root: JsonSchema, name: string): JsonSchema {
  const found = root.$defs?.[name];
  assert.ok(found, `schema has no $defs.${name}`);
  return found;
}

function tool(name: string): JsonSchema {
  const found = manifest.contributes.languageModelTools.find((t) => t.name === name);
  assert.ok(found, `package.json declares no tool ${name}`);
  return found.inputSchema;
}

function statusEnum(root: JsonSchema): unknown[] {
  const status = def(root, 'TaskModel').properties?.status?.enum;
  assert.ok(status);
  return status;
}

describe('protocol.generated.ts', () => {
  it('is what `plansight schema` generates today', () => {
    const checkedIn = fs.readFileSync(path.join(EXTENSION_ROOT, GENERATED_PATH), 'utf8');
    assert.equal(checkedIn, generateProtocol(schema), 'Run `npm run generate-protocol` and commit src/protocol.generated.ts');
  });

  it('covers the requests and the notifications of the contract', () => {
    assert.equal(schema.protocolVersion, 4);
    assert.deepEqual(Object.keys(schema.requests).sort(), [
      'plansight/apply',
      'plansight/clear',
      'plansight/context',
      'plansight/export',
      'plansight/get',
      'plansight/history',
      'plansight/import',
      'plansight/ingest',
      'plansight/restore',
      'plansight/sessions',
      'plansight/undo',
      'plansight/write',
    ]);
    assert.deepEqual(Object.keys(schema.notifications), ['plansight/didChange', 'plansight/didPrune']);
  });
});

describe("the server's rules (issue 30, item 7)", () => {
  it('counts as finished exactly the statuses the server says, each with its count in the progress', () => {
    const result = schema.requests['plansight/get']?.result as JsonSchema;
    const finished = schema.rules.finishedStatuses as string[];
    assert.deepEqual([...finished].sort(), ['abandoned', 'completed']);
    for (const status of statusEnum(result)) {
      assert.equal(isFinished(String(status)), finished.includes(String(status)), String(status));
    }
    const progress = def(result, 'ProgressModel').properties ?? {};
    for (const status of finished) {
      assert.ok(progress[status], `the progress counts ${status}`);
    }
    const counts = { completed: 2, abandoned: 1, blocked: 1, total: 6, percent: 33 };
    assert.equal(remainingOf(counts), 3);
  });
});

describe('package.json against the schema', () => {
  it('plansight_write takes exactly TodoWrite items, each field one of WriteItem', () => {
    const params = schema.requests['plansight/write']?.params as JsonSchema;
    const writeItem = def(params, 'WriteItem');
    const input = tool('plansight_write');
    assert.deepEqual(Object.keys(input.properties ?? {}), ['todos']);
    assert.ok(params.properties?.todos, 'WriteParams has todos');
    const item = input.properties?.todos?.items as JsonSchema;
    assert.deepEqual(Object.keys(item.properties ?? {}), ['content', 'activeForm', 'status']);
    assert.deepEqual(item.required, ['content', 'activeForm', 'status']);
    for (const field of item.required ?? []) {
      assert.ok(writeItem.required?.includes(field), `WriteItem requires ${field}`);
    }
    const statuses = writeItem.properties?.status?.enum ?? [];
    const offered = item.properties?.status?.enum ?? [];
    assert.deepEqual(offered, ['pending', 'in_progress', 'completed']);
    for (const status of offered) {
      assert.ok(statuses.includes(status), `the server knows status ${JSON.stringify(status)}`);
    }
  });

  it('plansight_apply offers every op of the schema, with fields the schema has', () => {
    const params = schema.requests['plansight/apply']?.params as JsonSchema;
    const opsItems = params.properties?.ops?.items as JsonSchema & { discriminator?: { mapping: Record<string, string> } };
    const mapping = opsItems.discriminator?.mapping ?? {};
    const input = tool('plansight_apply');
    const op = input.properties?.ops?.items as JsonSchema;
    assert.deepEqual([...(op.properties?.op?.enum ?? [])].sort(), Object.keys(mapping).sort());

    const schemaFields = new Set<string>();
    for (const ref of Object.values(mapping)) {
      const name = ref.replace('#/$defs/', '');
      for (const field of Object.keys(def(params, name).properties ?? {})) {
        schemaFields.add(field);
      }
    }
    for (const field of Object.keys(op.properties ?? {})) {
      assert.ok(schemaFields.has(field), `no op of the schema has a field ${field}`);
    }
    const itemSpec = def(params, 'ItemSpec');
    const itemObject = (op.properties?.items?.items?.anyOf ?? []).find((alt) => alt.type === 'object');
    assert.deepEqual(Object.keys(itemObject?.properties ?? {}).sort(), Object.keys(itemSpec.properties ?? {}).sort());
    const phaseSpec = def(params, 'PhaseSpec');
    assert.deepEqual(
      Object.keys((op.properties?.list?.items as JsonSchema).properties ?? {}).sort(),
      Object.keys(phaseSpec.properties ?? {}).sort(),
    );
  });

  it('gives each tool the usage guidance a model needs', () => {
    for (const { name, modelDescription } of manifest.contributes.languageModelTools) {
      assert.match(modelDescription, /3 or more/, name);
      assert.match(modelDescription, /one task in.progress/i, name);
      assert.match(modelDescription, /as soon as/, name);
      assert.match(modelDescription, /batch/, name);
    }
  });

  it('shows task menu items only for statuses the server has', () => {
    const result = schema.requests['plansight/get']?.result as JsonSchema;
    const statuses = statusEnum(result);
    const known = new Set(['session', 'session.cleared', 'phase', 'note', 'file', ...statuses.map((s) => `task.${String(s)}`)]);
    const used = new Set<string>();
    for (const entry of manifest.contributes.menus['view/item/context'] ?? []) {
      const when = entry.when ?? '';
      for (const match of when.matchAll(/viewItem [!=]= ([\w.]+)/g)) {
        used.add(match[1] as string);
      }
      // `viewItem =~ /^task\.(pending|blocked)$/`: each status of the group.
      for (const match of when.matchAll(/viewItem =~ \/\^task\\\.\(([\w|]+)\)\$\//g)) {
        for (const status of (match[1] as string).split('|')) {
          used.add(`task.${status}`);
        }
      }
    }
    assert.ok(used.has('task.blocked') && used.has('file'));
    assert.ok(used.size >= 7);
    for (const value of used) {
      assert.ok(known.has(value), `menus name viewItem ${value}, which no node has`);
    }
  });

  it('puts every command in the "Plansight" category', () => {
    for (const command of manifest.contributes.commands) {
      assert.equal(command.category, 'Plansight', command.command);
    }
  });
});
