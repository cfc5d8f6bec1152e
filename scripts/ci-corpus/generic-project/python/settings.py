def database_url(config):
    return f"postgres://{config['host']}:{config['port']}/app"
