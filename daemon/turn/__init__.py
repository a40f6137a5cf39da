"""A turn: from the wake word, the button or a typed question to the answer, heard and spoken."""
