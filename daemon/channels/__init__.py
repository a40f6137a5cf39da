"""Ways to reach the box besides speaking: the serial link and the local control socket."""
