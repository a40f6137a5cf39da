"""The blocking engines behind the ports: LLM, speech-to-text, text-to-speech, wake word."""
