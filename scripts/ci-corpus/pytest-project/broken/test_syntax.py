def test_bad_syntax(:
    pass
