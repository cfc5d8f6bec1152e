<?php
require __DIR__ . '/../src/Cart.php';
