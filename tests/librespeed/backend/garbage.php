<?php
// LibreSpeed's garbage.php, written for runner-bench's tests: ckSize
// 1 MiB blocks of random bytes (default 4 when missing, not a number or
// not positive; at most 1024), flushed after each block.
@ini_set('zlib.output_compression', 'Off');
@ini_set('output_buffering', 'Off');
while (ob_get_level() > 0) {
    ob_end_clean();
}
header('Content-Description: File Transfer');
header('Content-Type: application/octet-stream');
header('Content-Disposition: attachment; filename=random.dat');
header('Content-Transfer-Encoding: binary');
header('Cache-Control: no-store, no-cache, must-revalidate, max-age=0, s-maxage=0');
header('Cache-Control: post-check=0, pre-check=0', false);
header('Pragma: no-cache');
if (isset($_GET['cors'])) {
    header('Access-Control-Allow-Origin: *');
    header('Access-Control-Allow-Methods: GET, POST');
}
$chunks = 4;
if (isset($_GET['ckSize']) && ctype_digit($_GET['ckSize']) && (int) $_GET['ckSize'] > 0) {
    $chunks = min((int) $_GET['ckSize'], 1024);
}
$block = openssl_random_pseudo_bytes(1048576);
for ($i = 0; $i < $chunks; $i++) {
    echo $block;
    flush();
}
