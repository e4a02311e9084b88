module.exports = {
  ORDER_READ: { service: 'orders', resource: 'order', action: 'read' }
}
