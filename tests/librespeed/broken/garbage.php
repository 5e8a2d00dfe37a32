<?php
// A garbage.php that promises ckSize MiB in Content-Length, sends half of it
// and ends, so the server closes the connection mid-transfer.
while (ob_get_level() > 0) {
    ob_end_clean();
}
header('Content-Type: application/octet-stream');
$chunks = isset($_GET['ckSize']) ? max(2, min((int) $_GET['ckSize'], 1024)) : 4;
header('Content-Length: ' . ($chunks * 1048576));
$block = random_bytes(1048576);
for ($i = 0; $i < intdiv($chunks, 2); $i++) {
    echo $block;
    flush();
}
exit(0);
