"""Short passages from a shipped offline encyclopedia, retrieved for the questions that name an article."""
