"""Contract suites any backend runs: subclass one, say how to make the part, and pytest runs it.

    from polyrag.testing.store import StoreContract

    class TestMyStore(StoreContract):
        def make_store(self, location, dim, model):
            return MyStore(location, dim, model=model)

Needs pytest (the `dev` extra).
"""
