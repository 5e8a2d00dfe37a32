<?php
// LibreSpeed's getIP.php, written for runner-bench's tests: the client's
// address, without ISP or distance data (there is no database here).
header('Content-Type: application/json; charset=utf-8');
header('Cache-Control: no-store, no-cache, must-revalidate, max-age=0, s-maxage=0');
header('Pragma: no-cache');
if (isset($_GET['cors'])) {
    header('Access-Control-Allow-Origin: *');
    header('Access-Control-Allow-Methods: GET, POST');
}
$ip = $_SERVER['REMOTE_ADDR'] ?? '';
echo json_encode(['processedString' => $ip, 'rawIspInfo' => '']);
