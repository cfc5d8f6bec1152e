def require_even(n):
    if n % 2:
        raise ArithmeticError(f"{n} is odd")
    return n
