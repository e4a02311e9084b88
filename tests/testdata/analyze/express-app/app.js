'use strict'

const express = require('express')
const { createLocalClient } = require('@acme/policy')
const orders = require('./routes/orders')

const app = express()

// Generic middleware: the target is only known at run time.
function requirePolicy (service, resource, action) {
  return async function (req, res, next) {
    const decision = await req.app.locals.policy.evaluate({
      target: { service, resource, action },
      context: { userId: req.user && req.user.id }
    })
    if (decision.decision !== 'allow') return res.sendStatus(403)
    next()
  }
}

app.use('/orders', requirePolicy('orders', 'order', 'list'), orders)

app.get('/health', async (req, res) => {
  const { decision } = await app.locals.policy.evaluate({ target: { service: 'platform', resource: 'health', action: 'read' }, context: {} })
  res.json({ ok: decision === 'allow' })
})

createLocalClient({ bundlePath: process.env.POLICY_BUNDLE || 'policy-bundle.json' }).then((policy) => {
  app.locals.policy = policy
  app.listen(3000)
})
