const router = require('express').Router()
const { ORDER_READ } = require('../lib/targets')
const { Authorizer } = require('../lib/authorizer')

router.get('/:id', async (req, res) => {
  // Imported target: another file, not resolved.
  const decision = await req.app.locals.policy.evaluate({ target: ORDER_READ, context: {} })
  res.json(decision)
})

router.post('/', async (req, res) => {
  const policy = req.app.locals.policy
  const decision = await policy.evaluate({
    target: {
      service: 'orders',
      resource: 'order',
      action: 'create', // trailing comma
    },
    context: { userId: req.user?.id, plan: req.user?.plan },
  })
  if (decision.decision === 'throttle') return res.set('Retry-After', String(decision.throttle.windowSeconds)).sendStatus(429)
  res.status(201).end()
})

router.delete('/:id', async (req, res) => {
  const decision = await req.app.locals.policy?.evaluate?.({
    target: { service: 'orders', resource: 'order', action: 'cancel' },
  })
  res.sendStatus(decision?.decision === 'allow' ? 204 : 403)
})

router.post('/:id/ship', async (req, res) => {
  const authorizer = new Authorizer(req.app.locals.policy)
  res.json(await authorizer.canShip(req.body))
})

module.exports = router
