#!/usr/bin/env node
import { createLocalClient } from '@acme/policy'

const policy = await createLocalClient({ bundlePath: 'policy-bundle.json', allowUnsigned: true })
const items = [{ sku: 'a' }, { sku: 'b' }]

const results = await Promise.all(items.map(async item => policy.evaluate({
  target: { service: 'inventory', resource: 'item', action: 'import' },
  context: item
})))
console.log(`seeded ${results.length} items; policy.evaluate({ target }) ran ${results.length} times`)
