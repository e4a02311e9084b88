import React, { useMemo } from 'react'
import { usePolicy } from './usePolicy'

export default function OrderRow ({ order }) {
  const policy = usePolicy()
  // policy.evaluate({ target: { service: 'orders', resource: 'order', action: 'commented-out' } })
  const canRefund = useMemo(
    () => policy.evaluate({ target: { service: 'orders', resource: 'order', action: 'refund' }, context: { id: order.id } }).decision === 'allow',
    [policy, order.id]
  )
  return <tr><td>{order.id}</td><td>{canRefund ? <button>Refund</button> : 'policy.evaluate() says no'}</td></tr>
}
