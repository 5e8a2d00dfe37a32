<?php
// A slow garbage.php: the same response, but one 1 MiB block every 250 ms,
// so a sample with a short timeout ends part-way through.
while (ob_get_level() > 0) {
    ob_end_clean();
}
header('Content-Type: application/octet-stream');
$chunks = isset($_GET['ckSize']) ? max(1, min((int) $_GET['ckSize'], 1024)) : 4;
header('Content-Length: ' . ($chunks * 1048576));
$block = random_bytes(1048576);
for ($i = 0; $i < $chunks; $i++) {
    echo $block;
    flush();
    usleep(250000);
}
