"""Living under systemd: notify and watchdog, the journal, state that survives power cuts, first boot."""
