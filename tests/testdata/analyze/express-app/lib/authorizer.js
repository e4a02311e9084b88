class Authorizer {
  #client
  static #TARGETS = { refund: { service: 'orders', resource: 'payment', action: 'refund' } }

  constructor (client) {
    this.#client = client
  }

  canShip (order) {
    // SHIP is declared below the class; still visible at call time.
    return this.#client.evaluate({ target: SHIP, context: { region: order.region } })
  }

  canRefund (order) {
    return this.#client.evaluate({ target: Authorizer.#TARGETS.refund, context: { amount: order.total } })
  }

  canAudit (target) {
    // The parameter shadows the module-level `target` below.
    return this.#client.evaluate({ target })
  }
}

const SHIP = { service: 'orders', resource: 'shipment', action: 'create' }
const target = { service: 'orders', resource: 'audit', action: 'read' }

var legacyRequest = { target: { service: 'orders', resource: 'legacy', action: 'read' } }
exports.legacy = (client) => client.evaluate(legacyRequest)

exports.check = (c) => c.evaluate({ target, context: {}, })
exports.Authorizer = Authorizer
