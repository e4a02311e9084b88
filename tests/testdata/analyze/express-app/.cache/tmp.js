module.exports = (p) => p.evaluate({ target: { service: 'cache', resource: 'hidden', action: 'skipped' } })
