def check_positive(value):
    if value <= 0:
        raise ValueError(f"expected a positive value, got {value}")
    return value
