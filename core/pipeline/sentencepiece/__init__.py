"""SentencePiece's text pipeline: its normaliser (``NormalizerSpec``) as a pre-tokeniser and the precompiled
character map it applies."""
