"""Home Assistant, opt-in: home commands the box recognises are carried out by the user's own Home Assistant.

The daemon never opens a network connection: `link` is its end of a local bridge process (`bridge`, run by
talkbox-homeassistant.service), which alone talks to Home Assistant over the LAN, and only in text.
"""
