"""The shipped models, installed as the package ``ddz.checkpoints``: ``hard.npz`` (the Hard
agent), ``belief.npz`` (the belief model) and ``README.md`` (their model card). The loaders find
them with :mod:`importlib.resources` (:func:`ddz.agents.hard.shipped_file`)."""
