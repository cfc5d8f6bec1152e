def total(items):
    return sum(price * qty for price, qty in items)


def parse_price(text):
    return int(text)
