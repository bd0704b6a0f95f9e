/**
 * Response bodies shaped like the media API's samples, mix-ups included: `err_no` sometimes a
 * string, `total_num` as text, `file_type` a single string, `store_uri`/`file_path` inside
 * source_info, `run_status` as text.
 */
export const samples: Record<string, unknown> = {
  get_video_list: {
    err_no: 0,
    err_msg: 'success',
    log_id: '20240101120000ABCDEF',
    total_num: '2',
    data: [
      {
        video_name: 'episode 1',
        vid: 'v0d00fg10000aaaa',
        size: 1048576,
        upload_time: 1700000000,
        business_status: 98,
        trans_code_status: 4,
        source_type: 2,
      },
      {
        video_name: 'episode 2',
        vid: 'v0d00fg10000bbbb',
        size: '2097152',
        upload_time: 1700000100,
        business_status: 99,
        trans_code_status: '1',
        source_type: 1,
        video_open_id: 'open-2',
      },
    ],
  },
  delete_video: { err_no: 0, err_msg: '', log_id: '20240101120000DELETE' },
  get_video_by_vid: {
    err_no: '0',
    err_msg: 'success',
    log_id: '20240101120000PLAY',
    data: [
      {
        format: 'mp4',
        main_play_url: 'https://play.example.com/main.mp4',
        back_up_play_url: 'https://play.example.com/backup.mp4',
        main_url_expire: '1700003600',
        back_url_expire: '1700003600',
        definition: '720p',
        bitrate: 1500,
        codec: 'h264',
        size: 1048576.5,
        is_demote: false,
        is_original: true,
      },
    ],
  },
  upload_video_by_urls: {
    err_no: 0,
    err_msg: 'success',
    log_id: '20240101120000UPLOAD',
    data: { url_jobs: [{ source_url: 'https://cdn.example.com/ep1.mp4', job_id: 'job-1' }] },
  },
  get_upload_job_info: {
    err_no: 0,
    err_msg: 'success',
    log_id: '20240101120000JOBS',
    data: {
      video_infos: [
        {
          request_id: 'req-1',
          job_id: 'job-1',
          source_url: 'https://cdn.example.com/ep1.mp4',
          state: 'success',
          vid: 'v0d00fg10000cccc',
          source_info: {
            md5: 'abc',
            file_type: 'video',
            height: 720,
            width: 1280,
            format: 'mp4',
            duration: 61.5,
            size: 1048576,
            bitrate: 1500,
            store_uri: 'tos://bucket/ep1',
            file_path: '/ep1.mp4',
          },
        },
      ],
      not_exist_job_ids: ['job-404'],
    },
  },
  start_work_flow: { err_no: 0, err_msg: 'success', log_id: '20240101120000FLOW', run_id: 'run-1' },
  get_work_flow_exection: {
    err_no: 0,
    err_msg: 'success',
    log_id: '20240101120000EXEC',
    run_status: '10',
    run_status_msg: 'success',
  },
  describe_vod_played_top_data: {
    err_no: 0,
    err_msg: 'success',
    log_id: '20240101120000TOP',
    play_static_infos: [
      {
        vid: 'v0d00fg10000aaaa',
        app_id: '',
        name: 'episode 1',
        size: 1048576,
        duration: 61.5,
        create_time: '2024-01-01 12:00:00',
        play_count: '42',
        traffic: 4096,
      },
    ],
  },
  describe_vod_played_static_data: {
    err_no: 0,
    err_msg: 'success',
    log_id: '20240101120000STATIC',
    play_static_infos: [
      {
        vid: 'v0d00fg10000aaaa',
        app_id: 'tt123',
        name: 'episode 1',
        size: 1048576,
        duration: 61.5,
        create_time: '2024-01-01 12:00:00',
        play_count: 42,
        traffic: 4096,
      },
    ],
  },
};
