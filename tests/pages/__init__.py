"""One AppTest file per page, named after its page script."""
