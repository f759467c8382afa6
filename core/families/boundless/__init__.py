"""BoundlessBPE ([boundless]): the model and its inference (``model.py``), training with supermerges and
deletions (``trainer.py``) on compact word and superword states (``states.py``, ``superwords.py``)."""
