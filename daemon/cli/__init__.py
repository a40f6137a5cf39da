"""The `talkbox` command: thin subcommands over the library, and the tools that measure the box."""
