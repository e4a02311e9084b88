// Start-up baseline: a script that does nothing.
