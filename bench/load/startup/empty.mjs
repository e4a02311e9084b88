// Start-up baseline under Node: a script that does nothing.
