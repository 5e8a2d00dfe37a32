<?php
// A garbage.php that sends one MiB more than ckSize asks for, with no
// Content-Length (chunked), so only the client can tell it was too much.
while (ob_get_level() > 0) {
    ob_end_clean();
}
header('Content-Type: application/octet-stream');
$chunks = isset($_GET['ckSize']) ? max(1, min((int) $_GET['ckSize'], 1024)) : 4;
$block = random_bytes(1048576);
for ($i = 0; $i < $chunks + 1; $i++) {
    echo $block;
    flush();
}
