"""SentencePiece ``.model`` files: the protobuf wire format, the ``ModelProto`` fields, and a reader per model
type (``bpe.py``, ``unigram.py``) behind one entry point (``load.py``)."""
